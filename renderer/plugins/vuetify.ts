// The house style in one place: component defaults live here, not on every button.
import '@mdi/font/css/materialdesignicons.css';
import 'vuetify/styles';
import { createVuetify } from 'vuetify';

export const vuetify = createVuetify({
  theme: {
    defaultTheme: 'light',
    themes: {
      // held / unknown / missing / discarded: the money-safety states, each its own colour so a list
      // of statuses reads at a glance (statusColor in lib/format.ts picks them).
      light: {
        colors: {
          primary: '#1b4d89', secondary: '#3d5a80', test: '#f59e0b', live: '#c62828',
          held: '#d84315', unknown: '#6a1b9a', missing: '#ad1457', discarded: '#616161',
          // Darker than Vuetify's green: white text on it ("online", SUCCESS) reaches 4.5:1 (WCAG AA; axe in the e2e tests).
          success: '#2e7d32',
          // Black on Vuetify's orange (9:1) where white reached 2.4:1: "waiting for approval", the Approvals count.
          'on-warning': '#000000',
        },
        // Field labels and secondary lines a little darker than Vuetify's 0.6: they reach 4.5:1 on white and on a
        // selected row's grey (WCAG AA).
        variables: { 'medium-emphasis-opacity': 0.7 },
      },
      dark: {
        dark: true,
        colors: {
          primary: '#7fb2f0', secondary: '#98c1d9', test: '#f59e0b', live: '#ef5350',
          held: '#ff8a65', unknown: '#ce93d8', missing: '#f48fb1', discarded: '#9e9e9e',
          success: '#2e7d32',
          'on-warning': '#000000',
        },
      },
    },
  },
  defaults: {
    VBtn: { variant: 'flat' },
    VTextField: { variant: 'outlined', density: 'comfortable' },
    VSelect: { variant: 'outlined', density: 'comfortable' },
    VCard: { rounded: 'lg' },
  },
});
