import { dirname } from "node:path";

/**
 * A module as express-openapi-validator requires it (its own Ajv, path-to-regexp...), or as a
 * module it requires does (`within`, a package so found): the copy a patch of ours must change,
 * whichever copy that is. A relative specifier names a file of the validator's own.
 */
export function validatorModule<T>(specifier: string, within?: string): T {
  const validatorDir = dirname(require.resolve("express-openapi-validator"));
  const from = within ? dirname(require.resolve(within, { paths: [validatorDir] })) : validatorDir;
  return require(require.resolve(specifier, { paths: [from] })) as T;
}
