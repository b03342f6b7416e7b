// ESLint flat config: type-aware typescript-eslint over src, workers, bench and test.
import js from '@eslint/js';
import mocha from 'eslint-plugin-mocha';
import n from 'eslint-plugin-n';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// DuckDB calls that take statement text first.
const sqlCall =
  'CallExpression[callee.property.name=/^(run|runAndRead|runAndReadAll|runAndReadUntil|stream|streamAndRead|streamAndReadAll|streamAndReadUntil|prepare|extractStatements)$/]';
const sqlMessage =
  'Statement text must not be built from values: write sql`...` (src/store/sql.ts), which binds every value as a parameter.';
/** Values reach DuckDB as bound parameters or through the Appender, never spliced into SQL text. */
const sqlRules = [
  {
    selector: `${sqlCall}[arguments.0.type='TemplateLiteral'][arguments.0.expressions.length>0]`,
    message: sqlMessage,
  },
  { selector: `${sqlCall}[arguments.0.type='BinaryExpression']`, message: sqlMessage },
];
const duckdbInstanceRule = {
  selector:
    "NewExpression[callee.property.name='DuckDBInstance'], CallExpression[callee.object.name='DuckDBInstance']",
  message: 'Only src/store/ may open DuckDB: two instances on one file in one process silently lose rows.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist.next/**', 'dist.old/**', 'node_modules/**', '.cache/**'] },
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
      'no-restricted-syntax': ['error', duckdbInstanceRule, ...sqlRules],
    },
  },
  {
    files: ['src/store/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...sqlRules] },
  },
  {
    // tests open stopped daemons' files and set up states by hand
    files: ['test/**/*.ts'],
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
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ignores: ['src/views/web/page/**'],
    languageOptions: { globals: globals.node },
  },
  {
    // the web view's script runs in the browser, as ES modules, served as written (no build)
    files: ['src/views/web/page/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
);
