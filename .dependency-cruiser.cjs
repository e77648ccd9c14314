// The import rules of the layers (see docs/ARCHITECTURE.md): entry points -> shared/edge ->
// shared/domain -> shared/data -> shared/core, with shared/nlu a leaf beside them (it may read shared/core,
// which imports nothing of ours); no cycles. `npm run lint` runs it.
const layer = (name, mayNotImport, comment) => ({
  name, severity: 'error', comment,
  from: { path: `^shared/${name}/` },
  to: { path: mayNotImport },
});

// The feature folders of shared/domain, in the one order imports run: a wing may import the wings
// before it, never one after it. Each pair is its own rule (wing-<later>-before-<earlier>... read
// as "<earlier> imports no <later>"), so a back arrow names the two wings.
const WINGS = ['starter', 'tenants', 'customers', 'knowledge', 'handoff', 'reports', 'team', 'events-out', 'assistant', 'indexing', 'email', 'privacy'];

// The folders of shared/nlu, in the same way: the word vectors, then retrieval, then the
// classifier (which reads retrieval's stop words), then the answer policy over both, then the
// composition that trains a tenant's model and answers a message with all of them.
const NLU_FOLDERS = ['encoder', 'knowledge', 'intents', 'policy', 'answer'];

/** One rule per pair of an order: `<prefix>-<earlier>-imports-no-<later>`. */
function orderRules(prefix, base, order) {
  const rules = [];
  order.forEach((lower, i) => {
    for (const upper of order.slice(i + 1)) {
      rules.push({
        name: `${prefix}-${lower}-imports-no-${upper}`, severity: 'error', comment: `${lower} comes before ${upper} in the order of ${base}`,
        from: { path: `^${base}/${lower}/` }, to: { path: `^${base}/${upper}/` },
      });
    }
  });
  return rules;
}

function wingRules() {
  return orderRules('wing', 'shared/domain', WINGS);
}

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'two modules that import each other, directly or not', from: {}, to: { circular: true } },
    layer('core', '^(shared/(?!core/)|functions/|bin/|local/|infra/|web/)', 'the vocabulary and error types import nothing of ours'),
    layer('nlu', '^(shared/(?!(nlu|core)/)|functions/|bin/|local/|infra/|web/)', 'the NLU is a leaf: of ours it imports only shared/core'),
    layer('data', '^(shared/(domain|edge)/|functions/|bin/|local/|infra/|web/)', 'the data layer knows no rules and no AWS event'),
    layer('domain', '^(shared/edge/|functions/|bin/|local/|infra/|web/)', 'the domain knows no HTTP, socket, stream or queue event'),
    layer('edge', '^(functions/|bin/|local/|infra/|web/)', 'the edge imports no entry point'),
    // The domain's feature wings (docs/ARCHITECTURE.md): the loose helpers at the top serve every
    // wing and import none; the wings stand in one order, and each imports only wings before it.
    {
      name: 'domain-helpers-import-no-wing', severity: 'error', comment: 'a loose file of shared/domain is a helper of every wing',
      from: { path: '^shared/domain/[^/]+$' }, to: { path: '^shared/domain/[^/]+/' },
    },
    {
      name: 'domain-wing-in-order', severity: 'error', comment: `every folder of shared/domain has its place in WINGS (${WINGS.join(', ')})`,
      from: { path: `^shared/domain/(?!(${WINGS.join('|')})/)[^/]+/` }, to: {},
    },
    ...wingRules(),
    {
      name: 'nlu-folder-in-order', severity: 'error', comment: `every folder of shared/nlu has its place in NLU_FOLDERS (${NLU_FOLDERS.join(', ')})`,
      from: { path: `^shared/nlu/(?!(${NLU_FOLDERS.join('|')})/)[^/]+/` }, to: {},
    },
    ...orderRules('nlu', 'shared/nlu', NLU_FOLDERS),
    // The NLU's one entry (docs/NLU.md): outside code imports shared/nlu/index.ts, never a module
    // behind it, so what the rest of the service uses of the NLU is listed in one file.
    {
      name: 'nlu-through-index', severity: 'error', comment: 'outside shared/nlu, the NLU is imported from shared/nlu/index.ts only',
      from: { pathNot: '^shared/nlu/' }, to: { path: '^shared/nlu/(?!index\\.ts$)' },
    },
    {
      name: 'nlu-index-is-for-outside', severity: 'error', comment: 'inside shared/nlu, modules import each other, never the index (a cycle)',
      from: { path: '^shared/nlu/(?!index\\.ts$)' }, to: { path: '^shared/nlu/index\\.ts$' },
    },
    {
      name: 'shared-outside-layers', severity: 'error', comment: 'every shared module lives in a layer',
      from: { path: '^shared/[^/]+$' }, to: {},
    },
    {
      name: 'no-entry-point-imports', severity: 'error', comment: 'nothing imports a handler, the CDK app or the local runtime but tests',
      from: { path: '^(shared|functions|infra|web)/' }, to: { path: '^(functions|bin|local)/' },
    },
    ...webRules(),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|dist|web/[^/]+/dist)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

// web/: the browser code. Each app keeps to itself, and reaches shared/ only for the vocabulary (the
// service's words and the ticket moves, which import nothing), by its alias `#vocabulary`.
function webRules() {
  const rule = (name, comment, from, to) => ({ name, severity: 'error', comment, from: { path: from }, to });
  const W = '^web/widget/src/';
  return [
    rule('web-no-relative-shared', 'web reaches shared/ by an alias, never by a relative path', '^web/', { path: '^shared/', dependencyTypesNot: ['aliased'] }),
    rule('web-shared-vocabulary-only', 'the browser bundles import no rule, data or edge code of the service', '^web/dashboard/src/',
      { path: '^shared/', pathNot: '^shared/core/vocabulary\\.ts$' }),
    rule('dashboard-imports-no-widget', 'two apps, two bundles', '^web/dashboard/', { path: '^web/widget/' }),
    // The dashboard: screens are built from ui/, and ui/ knows no screen; only api/ holds the HTTP
    // client and the types generated from the OpenAPI document (the sign-in and config.json aside).
    rule('dashboard-ui-imports-no-screen', 'ui/ holds the parts every screen uses', '^web/dashboard/src/ui/', { path: '^web/dashboard/src/screens/' }),
    rule('dashboard-server-through-api', 'screens and ui/ reach the server through api/ (the app context hands them its client)', '^web/dashboard/src/(screens|ui)/',
      { path: '(^|/)node_modules/(openapi-fetch|oidc-client-ts)/|^web/dashboard/src/(api/schema|auth\\.ts|config\\.ts)' }),
    // The widget, one way: main -> widget -> its parts (failure, transcript, typing, hours, visitor, handoff)
    // -> views | state -> transport | socket -> types (-> schema), retry, colour.
    // (schema.d.ts is generated by `npm run typecheck`, which CI runs after the lint: unresolved until then.)
    rule('widget-self-contained', 'no package and no shared code in widget.js (its size budget)', W, { pathNot: W, couldNotResolve: false }),
    rule('widget-entry', 'main.ts boots mount (widget.ts); nothing else imports either', `${W}(?!main\\.ts$)`, { path: `${W}(main|widget)\\.ts$` }),
    rule('widget-parts', 'the parts mount wires open no socket: the live channel is mount\'s (they reach it through the state)',
      `${W}(failure|transcript|typing|hours|visitor|handoff)\\.ts$`, { path: `${W}socket\\.ts$` }),
    rule('widget-views', 'views build the DOM from what they are given: no state, transport or socket', `${W}views/`,
      { path: W, pathNot: `${W}(views/|types\\.ts$|colour\\.ts$)` }),
    rule('widget-state', 'the state holds data, no DOM building and no calls', `${W}state\\.ts$`, { path: W, pathNot: `${W}(types|socket)\\.ts$` }),
    rule('widget-transport-socket', 'the chat API and the live socket know nothing of the widget above them', `${W}(transport|socket)\\.ts$`,
      { path: W, pathNot: `${W}(types|retry)\\.ts$` }),
    rule('widget-leaves', 'types (from the generated schema), retry timing and colour maths import nothing else', `${W}(types|retry|colour)\\.ts$`,
      { path: W, pathNot: `${W}schema\\.d\\.ts$` }),
  ];
}
