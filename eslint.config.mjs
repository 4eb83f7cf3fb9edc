// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The recommended type-aware rules of typescript-eslint over every TypeScript file; app boundaries are test/architecture.spec.ts's. */
export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'test-artifacts/', 'dist-test/', 'coverage/', 'data/', 'node_modules/', '**/*.js', '**/*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Unused arguments named with a leading underscore say so on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and benchmarks read untyped JSON answers and build jest doubles; they are checked for the rest.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.int-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Tests load JavaScript configs and packages named at run time.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
);
