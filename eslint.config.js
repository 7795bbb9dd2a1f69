// Lint rules for the TypeScript sources (npm run lint). Generated files are not linted.
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");

module.exports = tseslint.config(
  { ignores: ["generated/**", "node_modules/**", "data/**", "coverage/**", "dist/**", "bench/data/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-require-imports": "off",
      eqeqeq: ["error", "always"],
      "no-console": ["error", { allow: ["error", "log"] }],
    },
  },
  {
    files: ["*.js"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable", __dirname: "readonly" } },
  },
  {
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["prisma/cli-adapters.ts"],
    // The adapters' internals are not typed; this file patches them (see its header).
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
