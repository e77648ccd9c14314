import { Validations, type Stage } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';

/** The rule packs the stack is held to; its acknowledgements (with reasons) live next to the resources. */
export const nagPacks = () => [new AwsSolutionsChecks(), new ServerlessChecks()];

/** Runs the packs at synth: any unacknowledged finding fails `cdk synth`. */
export function addNagChecks(app: Stage): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}
