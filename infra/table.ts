import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '#shared/data/table.ts';

/** The one table, mapped from the same definition the local runtime uses to create DynamoDB Local's. */
export class DataTable extends Construct {
  readonly table: Table;
  readonly indexNames: readonly string[] = tableDefinition.indexes.map((i) => i.name);

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const s = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: s(tableDefinition.partitionKey),
      sortKey: s(tableDefinition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // Tenant data outlives the stack: deleting the stack must not delete the table.
      removalPolicy: RemovalPolicy.RETAIN,
      // AWS-managed key: encrypted at rest with a key visible in the account, and no kms:* grants
      // needed on the functions (DynamoDB uses the key on their behalf).
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      stream: StreamViewType[tableDefinition.stream],
    });
    for (const index of tableDefinition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: s(index.partitionKey),
        sortKey: s(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
  }

  /** ARNs of the indexes one by one, so a grant never needs `index/*`. */
  indexArns(): string[] {
    return this.indexNames.map((name) => `${this.table.tableArn}/index/${name}`);
  }
}
