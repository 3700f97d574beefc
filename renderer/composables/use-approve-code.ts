// The second factor's part of an approve form (a batch's or payout's approval, a payee change's): whether the code
// field shows, whether the person must set one up first, and whether Sign may be pressed. One place, so both forms
// ask the same thing the same way.
import { computed, ref, type Ref } from 'vue';
import type { IpcError } from '../../contract/api';
import { asksForCode, codeNeeded, enrolmentMissing, isCodeShape, isNotEnrolled } from '../lib/second-factor';
import { useSecondFactorStore } from '../stores/second-factor';

const NOT_SET_UP = 'Approving on this profile needs a code of a second factor, and you have none set up at this desk yet.';

/** `error`: the approve action's last error (main's answer says when a code is needed or none is set up). */
export function useApproveCode(error: () => IpcError | null, passphrase: Ref<string>) {
  const sf = useSecondFactorStore();
  const code = ref('');
  /** Main answered that a code is needed (or was wrong): the field stays, whatever the view said. */
  const codeAsked = ref(false);
  const showCode = computed(() => codeAsked.value || codeNeeded(sf.view, 'approve'));
  const notEnrolled = computed(() => {
    const e = error();
    if (isNotEnrolled(e)) return e!.message;
    return enrolmentMissing(sf.view, 'approve') ? NOT_SET_UP : null;
  });
  const canSign = computed(() => passphrase.value !== '' && (!showCode.value || isCodeShape(code.value)) && notEnrolled.value === null);
  return {
    code,
    showCode,
    notEnrolled,
    canSign,
    /** Entering the approve form: whether it asks for a code now (main's view of the unlocked person). */
    start(): void {
      code.value = '';
      codeAsked.value = false;
      void sf.load();
    },
    /** The code to send with the approval, if the form shows one. */
    codeToSend(): string | undefined {
      return showCode.value ? code.value.trim() : undefined;
    },
    /** After the approve call: the code is spent either way; a refusal that asks for one keeps the field. */
    answered(ok: boolean, e: IpcError | null): void {
      code.value = '';
      if (ok) void sf.load();
      else if (asksForCode(e)) codeAsked.value = true;
    },
  };
}
