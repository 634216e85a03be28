/** benchcard's library entry: the same functions the CLI calls. */
export * from "./core/pack/card.js";
export * from "./core/common/errors.js";
export { loadPack, type LoadedPack, type LoadedTask } from "./pack/load.js";
export { validatePack, type ValidationReport } from "./pack/validate.js";
export { freezePack } from "./pack/freeze.js";
export { verifyPack, type VerifyReport } from "./pack/verify.js";
export { readLock } from "./pack/lockfile.js";
export { selectDriver } from "./sandbox/select.js";
