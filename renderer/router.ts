import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router';

export const screens = [
  { path: '/balances', name: 'balances', title: 'Balances', icon: 'mdi-scale-balance' },
  { path: '/payouts/new', name: 'new-payout', title: 'New payout', icon: 'mdi-bank-transfer-out' },
  { path: '/batches', name: 'batches', title: 'Batches', icon: 'mdi-file-table-box-multiple' },
  { path: '/history', name: 'history', title: 'History', icon: 'mdi-history' },
  { path: '/payins', name: 'payins', title: 'Payins', icon: 'mdi-bank-transfer-in' },
  { path: '/settings', name: 'settings', title: 'Settings', icon: 'mdi-cog' },
] as const;

const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/balances' },
  ...screens.map((s) => ({
    path: s.path,
    name: s.name,
    component: () => import('./views/PlaceholderView.vue'),
    meta: { title: s.title },
  })),
];

// Hash history: the renderer is loaded from a custom protocol, where path routing has no server behind it.
export const router = createRouter({ history: createWebHashHistory(), routes });
