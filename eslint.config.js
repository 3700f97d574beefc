// Lint for every TypeScript and Vue file. The electron import rule enforces DESIGN.md §2:
// only main/ and preload/ may import electron.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';

const noElectron = {
  'no-restricted-imports': [
    'error',
    { paths: [{ name: 'electron', message: 'Only main/ and preload/ may import electron (DESIGN.md §2).' }] },
  ],
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
  },
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  // CommonJS files (the bin): require() is how they import.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: noElectron,
  },
  { files: ['contract/**/*.ts', 'sandbox/**/*.ts', 'main/domain/**/*.ts', 'main/csv/**/*.ts', 'bench/**/*.ts'], rules: noElectron },
  {
    // Inside main/, only the shell files touch electron; services stay runnable under plain Node.
    files: ['main/**/*.ts'],
    ignores: ['main/index.ts', 'main/window.ts', 'main/ipc/register.ts', 'main/shell/**/*.ts'],
    rules: noElectron,
  },
);
