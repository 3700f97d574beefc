// One place for user-facing messages: every error and confirmation the screens show goes through here.
import { defineStore } from 'pinia';
import { ref } from 'vue';

export const NOTICE_KINDS = ['success', 'info', 'warning', 'error'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export interface Notice {
  id: number;
  kind: NoticeKind;
  text: string;
}

export const useNotifyStore = defineStore('notify', () => {
  const queue = ref<Notice[]>([]);
  let next = 1;

  function push(kind: NoticeKind, text: string): void {
    queue.value.push({ id: next++, kind, text });
  }

  function dismiss(id: number): void {
    queue.value = queue.value.filter((n) => n.id !== id);
  }

  return { queue, push, dismiss, success: (t: string) => push('success', t), error: (t: string) => push('error', t) };
});
