// The house style in one place: component defaults live here, not on every button.
import '@mdi/font/css/materialdesignicons.css';
import 'vuetify/styles';
import { createVuetify } from 'vuetify';

export const vuetify = createVuetify({
  theme: {
    defaultTheme: 'light',
    themes: {
      light: { colors: { primary: '#1b4d89', secondary: '#3d5a80', test: '#f59e0b', live: '#c62828' } },
      dark: { dark: true, colors: { primary: '#7fb2f0', secondary: '#98c1d9', test: '#f59e0b', live: '#ef5350' } },
    },
  },
  defaults: {
    VBtn: { variant: 'flat' },
    VTextField: { variant: 'outlined', density: 'comfortable' },
    VSelect: { variant: 'outlined', density: 'comfortable' },
    VCard: { rounded: 'lg' },
  },
});
