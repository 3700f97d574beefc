// Payins: the payment options for an amount, the payin on screen and its customer account data, and the payment
// links issued. A link's token is never kept here: createLink hands it to the dialog that shows it once.
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { HistoryRow, JsonValue, PayinInput, PayinView, PaymentLinkInput, PaymentLinkView, PaymentOptionView, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import { errorFromException, type DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { registerAreaStore } from './session';

export const usePayinsStore = defineStore('payins', () => {
  const options = ref<PaymentOptionView[]>([]);
  const current = ref<PayinView | null>(null);
  const accountData = shallowRef<JsonValue | null>(null);
  const recent = ref<HistoryRow[]>([]);
  const recentLoading = ref(false);
  const recentLoaded = ref(false);
  const recentError = ref<DeskError | null>(null);
  const links = ref<PaymentLinkView[]>([]);
  const linksLoaded = ref(false);
  const linksError = ref<DeskError | null>(null);
  let unsubscribe: Unsubscribe | undefined;
  // Only the latest request of each kind is shown: the options for the amount typed last, the payin
  // opened last (an open, a refresh and a status event can overlap), the newest recent list.
  const optionLoads = latestRequests();
  const payinLoads = latestRequests();
  const accountLoads = latestRequests();
  const recentLoads = latestRequests();
  const linkLoads = latestRequests();

  async function loadOptions(amount: string, currencyCode: string) {
    const isLatest = optionLoads.begin();
    const r = await desk().payins.options({ money: { amount, currencyCode } });
    if (r.ok && isLatest()) options.value = r.data;
    return r;
  }

  async function create(input: PayinInput) {
    const r = await desk().payins.create(input);
    if (r.ok) {
      payinLoads.dropAll();
      accountLoads.dropAll();
      current.value = r.data;
      accountData.value = null;
      void loadRecent();
    }
    return r;
  }

  async function open(idPayin: string) {
    const isLatest = payinLoads.begin();
    const r = await desk().payins.get({ idPayin });
    if (r.ok && isLatest()) {
      if (current.value?.idPayin !== idPayin) {
        accountLoads.dropAll();
        accountData.value = null;
      }
      current.value = r.data;
    }
    return r;
  }

  async function refresh() {
    const id = current.value?.idPayin;
    if (!id) throw new Error('no payin');
    return open(id);
  }

  async function markPaidDemo() {
    const id = current.value?.idPayin;
    if (!id) throw new Error('no payin');
    const r = await desk().payins.markPaidDemo({ idPayin: id });
    if (r.ok && current.value?.idPayin === id) current.value = r.data;
    return r;
  }

  async function loadAccountData() {
    const id = current.value?.idPayin;
    if (!id) throw new Error('no payin');
    const isLatest = accountLoads.begin();
    const r = await desk().payins.accountData({ idPayin: id });
    if (r.ok && isLatest() && current.value?.idPayin === id) accountData.value = r.data;
    return r;
  }

  async function loadRecent(): Promise<void> {
    const isLatest = recentLoads.begin();
    recentLoading.value = true;
    try {
      const r = await desk().history.query({ limit: 10, filters: { kinds: ['payin'] } });
      if (!isLatest()) return;
      if (r.ok) {
        recent.value = r.data.items;
        recentLoaded.value = true;
        recentError.value = null;
      } else recentError.value = r.error;
    } catch (e) {
      if (isLatest()) recentError.value = errorFromException(e);
    } finally {
      if (isLatest()) recentLoading.value = false;
    }
  }

  /** The links issued; main checks those still waiting with the gateway first. */
  async function loadLinks(): Promise<void> {
    const isLatest = linkLoads.begin();
    try {
      const r = await desk().payins.links({});
      if (!isLatest()) return;
      if (r.ok) {
        links.value = r.data;
        linksLoaded.value = true;
        linksError.value = null;
      } else linksError.value = r.error;
    } catch (e) {
      if (isLatest()) linksError.value = errorFromException(e);
    }
  }

  /** Issues a link; the answer (with its token) goes to the caller only, the list gets the link without it. */
  async function createLink(input: PaymentLinkInput) {
    const r = await desk().payins.createLink(input);
    if (r.ok) {
      const { idPayin, money, reference, createdAt, expiresAt, state, status } = r.data;
      links.value = [{ idPayin, money, reference, createdAt, expiresAt, state, status }, ...links.value.filter((l) => l.idPayin !== idPayin)];
      void loadRecent();
    }
    return r;
  }

  async function hydrate(): Promise<void> {
    if (!unsubscribe) {
      unsubscribe = desk().events.paymentStatusChanged((e) => {
        if (e.kind === 'payin' && e.id === current.value?.idPayin) void refresh();
        if (e.kind === 'payin') void loadRecent();
        if (e.kind === 'payin' && links.value.some((l) => l.idPayin === e.id)) void loadLinks();
      });
    }
    await Promise.all([loadRecent(), loadLinks()]);
  }

  function dehydrate(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    for (const gate of [optionLoads, payinLoads, accountLoads, recentLoads, linkLoads]) gate.dropAll();
    recentLoading.value = false;
    options.value = [];
    current.value = null;
    accountData.value = null;
    recent.value = [];
    recentLoaded.value = false;
    recentError.value = null;
    links.value = [];
    linksLoaded.value = false;
    linksError.value = null;
  }

  return {
    options, current, accountData, recent, recentLoading, recentLoaded, recentError, links, linksLoaded, linksError,
    loadRecent, loadLinks, loadOptions, create, createLink, open, refresh, markPaidDemo, loadAccountData, hydrate, dehydrate,
  };
});

registerAreaStore(usePayinsStore);
