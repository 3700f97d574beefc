// Dual control on the active profile: who is unlocked at this desk (main holds the key; this store only
// knows the name, roles and until when), the people, the control records as this desk verified them (root
// fingerprint, changes waiting for a second admin), the approvals queue and the policy. Main's events
// (sessionChanged, approvalsChanged) and the gate holding something back refresh what is shown.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type {
  ApprovalDetail, ApprovalItem, ApprovalSubjectRef, ControlInfo, DeskSessionView, PersonInfo, PolicyRulesView, PolicyView, Result, RoleName, Unsubscribe,
} from '../../contract/api';
import { desk } from '../desk';
import { latestRequests } from '../lib/latest-request';
import { isWaitingForMe, waitingBadgeCount } from '../lib/waiting-for-me';
import { useSecondFactorStore } from './second-factor';
import { registerAreaStore, useSessionStore } from './session';

export const ROLE_NAMES: readonly RoleName[] = ['preparer', 'approver', 'sender', 'viewer', 'admin'];
export const ROLE_HELP: Readonly<Record<RoleName, string>> = {
  preparer: 'enters payouts and uploads batches',
  approver: 'approves or rejects what others prepared',
  sender: 'sends (releases, resumes) once approved',
  viewer: 'sees everything, changes nothing',
  admin: 'grants roles, revokes people, sets the approval policy',
};

/** Input in the window counts as use for the idle lock, reported at most this often. */
const TOUCH_EVERY_MS = 30_000;

export const useDualControlStore = defineStore('dualControl', () => {
  const session = ref<DeskSessionView | null>(null);
  const people = ref<PersonInfo[]>([]);
  const queue = ref<ApprovalItem[]>([]);
  const queueLoaded = ref(false);
  const policy = ref<PolicyView | null>(null);
  const control = ref<ControlInfo | null>(null);
  /** Bumped on every approvals change, so screens showing "waiting for approval" can ask again. */
  const revision = ref(0);
  const unlockOpen = ref(false);
  let unsubscribers: Unsubscribe[] = [];
  let lastTouch = 0;
  // Events, unlocks and screens all ask for the queue; an older answer landing late must not undo a newer one.
  const queueRequests = latestRequests();

  const me = computed(() => session.value?.unlocked ?? null);
  const has = (role: RoleName) => me.value?.roles.includes(role) === true;
  const isAdmin = computed(() => has('admin'));
  const enforced = computed(() => session.value?.enforced === true);
  const waitingForMe = computed(() => queue.value.filter(isWaitingForMe));
  /** The navigation drawer's badge on Approvals: the same items as the "Waiting for me" tab, 0 when nobody is unlocked. */
  const waitingForMeCount = computed(() => waitingBadgeCount(queue.value, { enforced: enforced.value, unlocked: me.value !== null }));
  const preparedByMe = computed(() => queue.value.filter((i) => i.preparedByMe));
  const rejected = computed(() => queue.value.filter((i) => i.state === 'rejected'));
  /** Why nothing may be sent or approved at this desk now (the control records do not verify here), or null. */
  const controlProblem = computed(() => session.value?.controlProblem ?? control.value?.problem?.message ?? null);

  const activeId = () => useSessionStore().activeProfileId;

  async function loadSession(): Promise<void> {
    const r = await desk().people.session();
    if (r.ok) session.value = r.data;
  }
  async function loadPeople(): Promise<void> {
    const r = await desk().people.list();
    if (r.ok) people.value = r.data;
  }
  async function loadQueue(): Promise<void> {
    const answer = await queueRequests.run(() => desk().approvals.queue());
    if (answer.stale) return;
    const r = answer.value;
    if (r.ok) {
      queue.value = r.data;
      queueLoaded.value = true;
    }
  }
  async function loadPolicy(): Promise<void> {
    const r = await desk().approvals.policy();
    if (r.ok) policy.value = r.data;
  }
  async function loadControl(): Promise<void> {
    const r = await desk().people.control();
    if (r.ok) control.value = r.data;
  }

  function changed(): void {
    revision.value++;
    void loadQueue();
  }

  async function hydrate(): Promise<void> {
    dehydrate();
    unsubscribers = [
      desk().events.sessionChanged((e) => {
        if (e.profileId !== activeId()) return;
        void loadSession();
        void loadControl();
        changed();
      }),
      desk().events.approvalsChanged((e) => {
        if (e.profileId !== activeId()) return;
        // Whether dual control is on, and who holds which role, may have changed at another desk of the team.
        void loadSession();
        void loadPeople();
        void loadPolicy();
        void loadControl();
        changed();
      }),
      // The gate pauses a batch or holds a payout: it now waits for approval.
      desk().events.batchProgress((p) => {
        if (p.state === 'PAUSED' || p.state === 'RUNNING') changed();
      }),
      desk().events.paymentStatusChanged((e) => {
        if (e.kind === 'payout' && (e.status === 'HELD' || e.previousStatus === 'HELD')) changed();
      }),
    ];
    await Promise.all([loadSession(), loadPeople(), loadControl()]);
    if (session.value?.enforced) await loadQueue();
  }

  function dehydrate(): void {
    unsubscribers.splice(0).forEach((u) => u());
    // A queue of the profile before a switch must not land under the next one.
    queueRequests.dropAll();
    session.value = null;
    people.value = [];
    queue.value = [];
    queueLoaded.value = false;
    policy.value = null;
    control.value = null;
  }

  /** After an answer that changes who is unlocked or what waits: the session, control records and queue again. */
  async function after<T>(r: Result<T>, reload: { people?: boolean; policy?: boolean } = {}): Promise<Result<T>> {
    if (r.ok) {
      await Promise.all([loadSession(), loadControl(), reload.people ? loadPeople() : undefined, reload.policy ? loadPolicy() : undefined, loadQueue()]);
      revision.value++;
    }
    return r;
  }

  const unlock = async (personId: string, passphrase: string) => after(await desk().people.unlock({ personId, passphrase }));
  const lock = async () => after(await desk().people.lock());
  /** The first person only (every role; they sign the control records' root); later people enrol at their own desk. */
  const addPerson = async (name: string, passphrase: string) => after(await desk().people.add({ name, passphrase }), { people: true });
  const enroll = async (name: string, passphrase: string) => after(await desk().people.enroll({ name, passphrase }), { people: true });
  // Admin actions: when main asks for the admin's second factor, the shared prompt takes a code and they run once more.
  const admin = <T>(call: () => Promise<Result<T>>) => useSecondFactorStore().guarded(call);
  const setRoles = async (personId: string, roles: RoleName[]) => after(await admin(() => desk().people.setRoles({ personId, roles })), { people: true });
  const revoke = async (personId: string, reason: string) => after(await admin(() => desk().people.revoke({ personId, reason })), { people: true });
  const show = (subject: ApprovalSubjectRef) => desk().approvals.show(subject);
  /** `code`: of the approver's authenticator app, when their second factor is asked on approve. */
  const approve = async (subject: ApprovalSubjectRef, passphrase: string, code?: string): Promise<Result<ApprovalDetail>> =>
    after(await desk().approvals.approve({ ...subject, passphrase, ...(code ? { code } : {}) }));
  const reject = async (subject: ApprovalSubjectRef, reason: string): Promise<Result<ApprovalDetail>> => after(await desk().approvals.reject({ ...subject, reason }));
  const savePolicy = async (rules: PolicyRulesView) => after(await admin(() => desk().approvals.setPolicy({ rules })), { policy: true });
  const cosign = async (hash: string) => after(await admin(() => desk().people.cosign({ hash })), { people: true, policy: true });
  const seal = async () => after(await admin(() => desk().people.seal()), { people: true, policy: true });
  const confirmRoot = async (fingerprint: string) => after(await desk().people.confirmRoot({ fingerprint }));

  /** The person is still working (input in the window): tell main, at most every 30 s, while unlocked. */
  function touch(): void {
    if (!me.value) return;
    const now = Date.now();
    if (now - lastTouch < TOUCH_EVERY_MS) return;
    lastTouch = now;
    void desk().people.touch().then((r) => {
      if (r.ok) session.value = r.data;
    });
  }

  return {
    session, people, queue, queueLoaded, policy, control, revision, unlockOpen, me, isAdmin, enforced, waitingForMe, waitingForMeCount, preparedByMe, rejected, controlProblem,
    has, hydrate, dehydrate, loadSession, loadPeople, loadQueue, loadPolicy, loadControl, unlock, lock, addPerson, enroll, setRoles, revoke, show, approve, reject,
    savePolicy, cosign, seal, confirmRoot, touch,
  };
});

registerAreaStore(useDualControlStore);
