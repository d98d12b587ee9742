// The front end's linter: ESLint's recommended rules and typescript-eslint's type-aware
// recommended rules over the client package, the app and the tests, and no import cycles
// (eslint-plugin-import-x, resolving imports as TypeScript does); generated code and build
// output are not linted.

import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/", "node_modules/", "client/src/gen/"] },
  js.configs.recommended,
  {
    files: ["**/*.ts"],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ["*.mjs"] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: ["./tsconfig.json", "./client/tsconfig.json"], noWarnOnMultipleProjects: true })],
    },
    rules: {
      // A cycle makes load order matter and one module's change ripple through both.
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      // Event handlers may be async: each catches and shows its own errors.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, properties: false } }],
    },
  },
  {
    // node:test's describe and it return promises the runner itself awaits; a stand-in
    // service's stream may have nothing to await.
    files: ["tests/unit/*.ts"],
    rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/require-await": "off" },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly", setTimeout: "readonly", clearTimeout: "readonly", performance: "readonly", fetch: "readonly", URL: "readonly", document: "readonly", location: "readonly", window: "readonly", localStorage: "readonly", getComputedStyle: "readonly" } },
  },
);
