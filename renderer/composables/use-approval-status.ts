// Where batches and payouts stand with dual control ("waiting for approval (1 of 2)"), asked of main for
// the subjects a screen shows, and again whenever approvals change.
import { ref, watch } from 'vue';
import type { ApprovalStatusView, ApprovalSubjectRef } from '../../contract/api';
import { desk } from '../desk';
import { latestRequests } from '../lib/latest-request';
import { useDualControlStore } from '../stores/dual-control';

export const subjectKey = (s: ApprovalSubjectRef) => `${s.kind}:${s.id}`;

export function useApprovalStatus(subjects: () => ApprovalSubjectRef[]) {
  const dc = useDualControlStore();
  const statuses = ref<Record<string, ApprovalStatusView>>({});
  const loads = latestRequests();

  async function load(): Promise<void> {
    const list = subjects().slice(0, 200);
    if (list.length === 0 || !dc.enforced) {
      statuses.value = {};
      return;
    }
    const isLatest = loads.begin();
    const r = await desk().approvals.status({ subjects: list });
    if (!isLatest() || !r.ok) return;
    statuses.value = Object.fromEntries(r.data.filter((s) => s.state !== 'not-needed').map((s) => [subjectKey(s.subject), s]));
  }

  watch(() => [subjects().map(subjectKey).join(','), dc.revision, dc.enforced] as const, () => void load(), { immediate: true });
  return { statuses, load };
}
