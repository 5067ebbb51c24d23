import { LOADER_RULES as LOADER_SEVERITY } from '../loader/index';
import { metaOf, type RuleMeta, type RuleSpec, type StaticRule } from './rule';
import * as aptPins from './rules/aptPins';
import * as dockerfile from './rules/dockerfile';
import * as imageBuild from './rules/imageBuild';
import * as cross from './rules/crossFile';
import { pathOutsideTask } from './rules/pathOutsideTask';
import * as py from './rules/pythonTests';
import * as answers from './rules/answerChecks';
import * as testNetwork from './rules/testNetwork';
import * as verifier from './rules/verifierScript';
import * as image from './rules/imageState';
import { placeholderSolutionRule } from './rules/dataFiles';
import { testPathDisagrees } from './rules/pathAgreement';
import { selfReportedResult } from './rules/selfReport';
import { harborComposeWithoutMain, tb1ComposeMissing, tb1ComposeWithoutHarnessName } from './rules/tb1Compose';
import { verifierImportsAgentModule } from './rules/agentModules';
import { unseededTrainingThreshold } from './rules/unseededTraining';
import { testImportsOutsideEnv } from './rules/uvxImports';
import { agentUserMissing } from './rules/agentUser';
import { baseImageInvalidReference } from './rules/imageReference';
import { testPathUnmounted } from './rules/testPathUnmounted';
import { concurrentTrialsCollide } from './rules/composeCollisions';
import { answerInInstruction } from './rules/answerInInstruction';
import { statedKeySetUnchecked } from './rules/statedKeySet';
import { dockerImageShadowsDockerfile } from './rules/prebuiltImage';
import { scoredFieldNotInSchema } from './rules/schemaFields';
import { sourceTextGrading } from './rules/sourceText';
import { downloadWithoutFail, solutionFetchesFix, unversionedDownloadUrl } from './rules/downloads';
import { verifierImageLocalBase, environmentImageLocalBase } from './rules/verifierImage';
import { mergeConflictMarkers } from './rules/mergeMarkers';
import { malformedDataFile } from './rules/malformedData';
import { solutionPathMissing, verifierReadsSolution } from './rules/oracleOnlyPaths';
import { inputPathMismatch } from './rules/inputPathMismatch';
import { testsUnavailableToAgent } from './rules/instructionTests';

/** Problems the loaders report (src/core/loader): registered here so every id has a docs page. */
const LOADER_RULE_SPECS: readonly RuleSpec[] = [
  { id: 'config-parse-error', class: 'invalidity', severity: 'error', title: 'task.yaml / task.toml does not parse' },
  { id: 'config-invalid-value', class: 'invalidity', severity: 'error', title: 'A configuration field has a value of the wrong type or range' },
  { id: 'config-unknown-key', class: 'invalidity', severity: 'info', title: 'A configuration key the format does not define' },
  { id: 'missing-instruction', class: 'invalidity', severity: 'error', title: 'The task has no instruction' },
  { id: 'missing-environment', class: 'invalidity', severity: 'error', title: 'The task has no Dockerfile, compose file or image' },
  { id: 'missing-test-entry', class: 'invalidity', severity: 'error', title: 'The verifier entry script (run-tests.sh / tests/test.sh) is missing' },
  { id: 'missing-tests', class: 'invalidity', severity: 'warning', title: 'The task has no tests folder' },
  { id: 'missing-solution', class: 'invalidity', severity: 'warning', title: 'The task has no reference solution' },
  { id: 'nested-task-folder', class: 'invalidity', severity: 'warning', title: 'A folder inside a task holds another task, which is never discovered' },
  { id: 'unsupported-schema-version', class: 'invalidity', severity: 'info', title: 'task.toml declares a schema version this tool does not know (Harbor reads it anyway)' },
];

/** Findings of the sandbox runs (validate): reserved here, produced there. */
const DYNAMIC_RULES: readonly RuleSpec[] = [
  { id: 'oracle-fails', class: 'invalidity', severity: 'error', title: 'The reference solution does not earn reward 1' },
  { id: 'nop-passes', class: 'misalignment', severity: 'error', title: 'An agent that does nothing earns reward' },
  { id: 'reward-not-isolated', class: 'misalignment', severity: 'error', title: 'Planted files change the verdict (conftest, pytest.ini, expected outputs)' },
  { id: 'flaky-verdict', class: 'brittleness', severity: 'warning', title: 'Repeated oracle runs disagree' },
  { id: 'timeout-margin', class: 'infra', severity: 'warning', title: 'The oracle finishes too close to its timeout' },
  { id: 'build-fails', class: 'invalidity', severity: 'error', title: 'The environment image does not build' },
  { id: 'answer-or-solution-in-image', class: 'misalignment', severity: 'error', title: 'The built image holds a copy of the reference solution or expected outputs' },
];

export const STATIC_RULES: readonly StaticRule[] = [
  verifier.testTimeNetworkInstall,
  verifier.unpinnedTestDependency,
  verifier.exitCodeMasking,
  verifier.pipelineStatusMasked,
  verifier.unconditionalReward,
  verifier.rewardNotWrittenOnFailure,
  verifier.rewardPathMismatch,
  verifier.noRewardWritten,
  verifier.rewardJsonNotObject,
  verifier.tb1MissingRA,
  verifier.pytestCollectionHijack,
  verifier.verifierRunsAgentWritableCode,
  verifierImportsAgentModule,
  verifier.missingTestDepsInImage,
  dockerfile.testsCopiedIntoImage,
  dockerfile.solutionCopiedIntoImage,
  image.answerInImage,
  dockerfile.copySourceMissing,
  dockerfile.heredocWithoutSyntax,
  imageBuild.baseImageUnpinned,
  aptPins.aptExactVersionPin,
  imageBuild.unpinnedImagePackage,
  imageBuild.aptInstallWithoutUpdate,
  imageBuild.nprocWithCpuLimit,
  downloadWithoutFail,
  unversionedDownloadUrl,
  verifierImageLocalBase,
  environmentImageLocalBase,
  image.outputAlreadyInImage,
  image.tb1TerminalToolsMissing,
  tb1ComposeWithoutHarnessName,
  tb1ComposeMissing,
  image.secretInImage,
  py.assertionFreeTest,
  py.trivialAssertion,
  py.existenceOnlyTest,
  py.weakAssertion,
  selfReportedResult,
  py.swallowedAssertion,
  py.skipCountsAsPass,
  py.wallClockThreshold,
  unseededTrainingThreshold,
  testImportsOutsideEnv,
  agentUserMissing,
  harborComposeWithoutMain,
  concurrentTrialsCollide,
  baseImageInvalidReference,
  testPathUnmounted,
  answerInInstruction,
  statedKeySetUnchecked,
  dockerImageShadowsDockerfile,
  py.fixedSleepSynchronization,
  py.unorderedListingComparison,
  py.exactDirectoryListing,
  py.clockTimezoneDependence,
  py.nonInvokingTest,
  py.expectedFromAgentWritablePath,
  sourceTextGrading,
  testNetwork.externalGradingService,
  testNetwork.testCodeNetworkFetch,
  answers.hardcodableAnswer,
  cross.hardcodedHostPath,
  cross.instructionMissingFile,
  cross.missingTestFixture,
  cross.unstatedTestedFile,
  scoredFieldNotInSchema,
  cross.solutionExceedsTimeout,
  cross.verifierTimeoutTooShort,
  cross.externalLiveResource,
  malformedDataFile,
  cross.llmArtifactInTask,
  mergeConflictMarkers,
  cross.solutionUnpinnedDependency,
  solutionFetchesFix,
  placeholderSolutionRule,
  testPathDisagrees,
  verifierReadsSolution,
  solutionPathMissing,
  inputPathMismatch,
  testsUnavailableToAgent,
  pathOutsideTask,
];

export const RULES: readonly RuleMeta[] = [
  ...STATIC_RULES.map((r) => metaOf(r, 'static')),
  ...LOADER_RULE_SPECS.map((r) => metaOf({ ...r, severity: (LOADER_SEVERITY as Record<string, RuleSpec['severity']>)[r.id] ?? r.severity }, 'loader')),
  ...DYNAMIC_RULES.map((r) => metaOf(r, 'dynamic')),
];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

export function ruleMeta(id: string): RuleMeta | undefined {
  return BY_ID.get(id);
}
