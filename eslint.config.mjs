// ESLint (flat config), run by `npm run lint`: typescript-eslint's type-checked recommended rules,
// React's hooks rules and Next.js's rules. A disable comment must name its reason on the same line.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "lib/generated/**",
      ".data/**",
      ".tools/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
      "public/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["**/*.{ts,tsx}"],
    rules: {
      // A leading underscore marks a binding kept on purpose (a positional parameter, a property left out of a rest).
      // An empty catch is the idiom for best-effort cleanup and optional parsing here; other empty blocks stay errors.
      "no-empty": ["error", { allowEmptyCatch: true }],
      // `let unsubscribe` declared before a cleanup closure that reads it and assigned after an await: a const
      // there would throw in the closure if it ran during the await.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The React code lives in app/ and components/ (elsewhere, e.g. Playwright fixtures' `use`, the hooks rules misfire).
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, "@next/next": nextPlugin },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
    },
  },
  {
    // Tests read JSON response bodies (typed `any` by fetch/Playwright) whose shape is exactly what their
    // assertions check; typing every body first would add nothing the assertions do not already verify.
    files: ["e2e/**", "**/*.test.ts", "**/*.test.tsx"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  { files: ["**/*.{js,mjs,cjs}"], ...tseslint.configs.disableTypeChecked },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        module: "writable",
        require: "readonly",
        URL: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        WebAssembly: "readonly",
      },
    },
  },
);
