// typescript-eslint's recommended type-aware rules over our TypeScript (types come from tsconfig.json).
import eslint from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** The rules that refuse `any` and its uses, turned off where the reasons below say. */
const anyAllowed = Object.fromEntries(
  [
    'no-explicit-any',
    'no-unsafe-argument',
    'no-unsafe-assignment',
    'no-unsafe-call',
    'no-unsafe-member-access',
    'no-unsafe-return',
  ].map((rule) => [`@typescript-eslint/${rule}`, 'off']),
);

export default defineConfig(
  globalIgnores(['generated/', 'data/', 'coverage/', 'client/dist/', 'dist/']),
  {
    files: ['**/*.ts'],
    extends: [eslint.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_` names an argument or a destructured field left out on purpose (`({ from: _, ...rest }) => rest`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Express's req.body, JSON.parse and the validator's internals are `any`: 148 reports in server/ when measured,
    // too many to type while server/ is being rewritten. Turn these on for server/ once it is typed.
    files: ['server/**/*.ts'],
    rules: anyAllowed,
  },
  {
    // Tests read response bodies as `any` (`res.json()`) and check them with expect() at run time; async callbacks
    // without an await stand in for async interfaces (job handlers, sinks).
    files: ['test/**/*.ts'],
    rules: {
      ...anyAllowed,
      '@typescript-eslint/require-await': 'off',
    },
  },
);
