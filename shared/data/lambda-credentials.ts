import { fromEnv, type FromEnvInit } from '@aws-sdk/credential-provider-env';

// Function bundles replace @aws-sdk/credential-provider-node with this module (infra/bundling.ts).
// Lambda hands a function its role's credentials in environment variables, so the rest of the
// default chain (INI and SSO files, web identity, IMDS, with their nested clients, a large part of
// a bundle) can never serve a deployed function. Local runs are unbundled and keep the full chain.
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
