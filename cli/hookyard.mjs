#!/usr/bin/env node
// The `hookyard` bin: runs cli/hookyard.ts through tsx (a dependency), so it works from a clone.
import { register } from "tsx/esm/api";
register();
await import("./hookyard.ts");
