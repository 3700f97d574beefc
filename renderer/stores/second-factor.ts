// The unlocked person's second factor (an authenticator app's codes) as main sees it, and the one shared
// prompt for a code: an admin action main refuses with SECOND_FACTOR_REQUIRED opens it (SecondFactorPrompt,
// mounted once in App.vue), the code is checked by people:verifySecondFactor, and the action is tried once
// more. Approvals ask in their own form instead, beside the passphrase they need anyway.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { Result, SecondFactorView } from '../../contract/api';
import { desk } from '../desk';
import { registerAreaStore } from './session';

interface PromptRequest {
  /** Main's sentence: what the code is for. */
  why: string;
  resolve: (verified: boolean) => void;
}

export const useSecondFactorStore = defineStore('secondFactor', () => {
  const view = ref<SecondFactorView | null>(null);
  const prompt = ref<PromptRequest | null>(null);

  async function load(): Promise<Result<SecondFactorView>> {
    const r = await desk().people.secondFactor();
    if (r.ok) view.value = r.data;
    return r;
  }

  const begin = () => desk().people.beginSecondFactor();
  async function confirm(code: string) {
    const r = await desk().people.confirmSecondFactor({ code: code.trim() });
    if (r.ok) view.value = r.data.view;
    return r;
  }
  async function verify(code: string) {
    const r = await desk().people.verifySecondFactor({ code: code.trim() });
    if (r.ok) view.value = r.data;
    return r;
  }
  async function remove(code: string) {
    const r = await desk().people.removeSecondFactor({ code: code.trim() });
    if (r.ok) view.value = r.data;
    return r;
  }

  /** Opens the prompt; true once a code was verified, false when the person cancelled. */
  function ask(why: string): Promise<boolean> {
    // Only one prompt at a time: an older request still open counts as cancelled.
    prompt.value?.resolve(false);
    return new Promise((resolve) => {
      prompt.value = { why, resolve };
    });
  }
  function answer(verified: boolean): void {
    const p = prompt.value;
    prompt.value = null;
    p?.resolve(verified);
  }

  /**
   * Runs an admin action; when main asks for a code, the prompt takes one and the action runs once more.
   * Cancelled, it hands back main's refusal, so the screen says why nothing happened.
   */
  async function guarded<T>(call: () => Promise<Result<T>>): Promise<Result<T>> {
    const first = await call();
    if (first.ok || first.error.code !== 'SECOND_FACTOR_REQUIRED') return first;
    if (!(await ask(first.error.message))) return first;
    return call();
  }

  function hydrate(): void {}
  function dehydrate(): void {
    view.value = null;
    answer(false);
  }

  return { view, prompt, load, begin, confirm, verify, remove, ask, answer, guarded, hydrate, dehydrate };
});

registerAreaStore(useSecondFactorStore);
