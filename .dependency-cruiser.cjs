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
