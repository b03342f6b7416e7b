// ESLint flat config: type-aware typescript-eslint over src, workers, bench and test.
import js from '@eslint/js';
import mocha from 'eslint-plugin-mocha';
import n from 'eslint-plugin-n';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { n },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'n/no-process-exit': 'off',
      'n/prefer-node-protocol': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "NewExpression[callee.property.name='DuckDBInstance'], CallExpression[callee.object.name='DuckDBInstance']",
          message:
            'Only src/store/ may open DuckDB: two instances on one file in one process silently lose rows.',
        },
      ],
    },
  },
  {
    files: ['src/store/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['test/**/*.test.ts'],
    extends: [mocha.configs.recommended],
    rules: {
      'mocha/no-mocha-arrows': 'off',
      'mocha/no-setup-in-describe': 'off',
      'mocha/consistent-spacing-between-blocks': 'off', // layout is Prettier's job
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
);
