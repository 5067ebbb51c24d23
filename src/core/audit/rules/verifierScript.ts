/** The verifier-script rules, split by concern (files of ~400 lines at most); re-exported here for the registry and the cross-file rules. */
export { verifierOffline } from './verifierShared';
export { testTimeNetworkInstall, unpinnedTestDependency, missingTestDepsInImage } from './verifierInstalls';
export { exitCodeMasking, pipelineStatusMasked, unconditionalReward, rewardNotWrittenOnFailure, rewardPathMismatch, noRewardWritten, rewardJsonNotObject } from './verifierReward';
export { tb1MissingRA } from './verifierPytest';
export { pytestCollectionHijack, verifierRunsAgentWritableCode } from './verifierAgentCode';
