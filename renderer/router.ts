import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router';

export const screens = [
  { path: '/overview', name: 'overview', title: 'Overview', icon: 'mdi-view-dashboard-outline' },
  { path: '/balances', name: 'balances', title: 'Balances', icon: 'mdi-scale-balance' },
  { path: '/payouts/new', name: 'new-payout', title: 'New payout', icon: 'mdi-bank-transfer-out' },
  { path: '/batches', name: 'batches', title: 'Batches', icon: 'mdi-file-table-box-multiple' },
  { path: '/approvals', name: 'approvals', title: 'Approvals', icon: 'mdi-check-decagram-outline' },
  { path: '/payees', name: 'payees', title: 'Payees', icon: 'mdi-account-cash-outline' },
  { path: '/history', name: 'history', title: 'History', icon: 'mdi-history' },
  { path: '/payins', name: 'payins', title: 'Payins', icon: 'mdi-bank-transfer-in' },
  { path: '/people', name: 'people', title: 'People', icon: 'mdi-account-group-outline' },
  // After the nine screens Ctrl+1…9 go to (contract/shortcuts.ts): Statements and Calendar have no key of their own.
  { path: '/statements', name: 'statements', title: 'Statements', icon: 'mdi-file-document-outline' },
  { path: '/calendar', name: 'calendar', title: 'Calendar', icon: 'mdi-calendar-month-outline' },
  { path: '/settings', name: 'settings', title: 'Settings', icon: 'mdi-cog' },
] as const;

const views: Record<(typeof screens)[number]['name'], () => Promise<unknown>> = {
  overview: () => import('./views/OverviewView.vue'),
  balances: () => import('./views/BalancesView.vue'),
  'new-payout': () => import('./views/NewPayoutView.vue'),
  batches: () => import('./views/BatchesView.vue'),
  approvals: () => import('./views/ApprovalsView.vue'),
  payees: () => import('./views/PayeesView.vue'),
  people: () => import('./views/PeopleView.vue'),
  history: () => import('./views/HistoryView.vue'),
  statements: () => import('./views/StatementsView.vue'),
  calendar: () => import('./views/CalendarView.vue'),
  payins: () => import('./views/PayinsView.vue'),
  settings: () => import('./views/SettingsView.vue'),
};

const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/overview' },
  { path: '/welcome', name: 'welcome', component: () => import('./views/FirstRunView.vue'), meta: { title: 'Welcome' } },
  ...screens.map(
    (s): RouteRecordRaw => ({ path: s.path, name: s.name, component: views[s.name], meta: { title: s.title } }),
  ),
  {
    path: '/payouts/:id',
    name: 'payout-detail',
    component: () => import('./views/PayoutDetailView.vue'),
    props: true,
    meta: { title: 'Payout' },
  },
];

// Hash history: the renderer is loaded from a custom protocol, where path routing has no server behind it.
export const router = createRouter({ history: createWebHashHistory(), routes });
