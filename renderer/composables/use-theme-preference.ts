// Dark mode follows the system until the user picks one; the choice is remembered on this machine.
import { computed } from 'vue';
import { useTheme } from 'vuetify';

const KEY = 'payout-desk.theme';

export function useThemePreference() {
  const theme = useTheme();
  const isDark = computed(() => theme.global.current.value.dark);

  function apply(name: 'light' | 'dark'): void {
    theme.change(name);
  }

  function restore(): void {
    const saved = localStorage.getItem(KEY);
    if (saved === 'light' || saved === 'dark') apply(saved);
    else if (window.matchMedia?.('(prefers-color-scheme: dark)').matches) apply('dark');
  }

  function toggle(): void {
    const next = isDark.value ? 'light' : 'dark';
    localStorage.setItem(KEY, next);
    apply(next);
  }

  return { isDark, toggle, restore };
}
