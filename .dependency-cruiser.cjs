// The import rules of the layers (see docs/ARCHITECTURE.md): entry points -> shared/edge ->
// shared/domain -> shared/data -> shared/core, with shared/nlu a leaf; no cycles. `npm run lint` runs it.
const layer = (name, mayNotImport, comment) => ({
  name, severity: 'error', comment,
  from: { path: `^shared/${name}/` },
  to: { path: mayNotImport },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'two modules that import each other, directly or not', from: {}, to: { circular: true } },
    layer('core', '^(shared/(?!core/)|functions/|bin/|infra/|web/)', 'the vocabulary and error types import nothing of ours'),
    layer('nlu', '^(shared/(?!nlu/)|functions/|bin/|infra/|web/)', 'the NLU is a leaf'),
    layer('data', '^(shared/(domain|edge)/|functions/|bin/|infra/|web/)', 'the data layer knows no rules and no AWS event'),
    layer('domain', '^(shared/edge/|functions/|bin/|infra/|web/)', 'the domain knows no HTTP, socket, stream or queue event'),
    layer('edge', '^(functions/|bin/|infra/|web/)', 'the edge imports no entry point'),
    // The domain's feature wings (docs/ARCHITECTURE.md): the loose helpers at the top serve every
    // wing and import none; tenants is the base the other wings stand on and imports no other wing.
    {
      name: 'domain-helpers-import-no-wing', severity: 'error', comment: 'a loose file of shared/domain is a helper of every wing',
      from: { path: '^shared/domain/[^/]+$' }, to: { path: '^shared/domain/[^/]+/' },
    },
    {
      name: 'tenants-wing-imports-no-wing', severity: 'error', comment: 'tenants and members are what the other wings build on',
      from: { path: '^shared/domain/tenants/' }, to: { path: '^shared/domain/(?!tenants/)[^/]+/' },
    },
    {
      name: 'shared-outside-layers', severity: 'error', comment: 'every shared module lives in a layer',
      from: { path: '^shared/[^/]+$' }, to: {},
    },
    {
      name: 'no-entry-point-imports', severity: 'error', comment: 'nothing imports a handler, the CDK app or the local runtime but tests',
      from: { path: '^(shared|functions|infra|web)/' }, to: { path: '^(functions|bin)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|dist)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
