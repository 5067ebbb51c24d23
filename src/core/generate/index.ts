export * from './types';
export { REQUIRED_FILES, parseDraft, pathProblem, submitTool, TASK_ID_PATTERN } from './layout';
export { systemPrompt, requestPrompt, auditRuleLines, BASE_IMAGE } from './prompt';
export { formatFeedback, formatFinding, trimLog, failureReason } from './feedback';
export { Conversation, MetaAgent, type MetaAgentOptions, type MetaTurn } from './metaAgent';
export { dockerGates, judgeValidation, InfraGateError, type Gates, type ValidationOutcome, type CalibrationOutcome } from './gates';
export { generateTasks, type GenerateDeps, type MetaAgentLike } from './pipeline';
export { buildReport, renderReportText, type YieldReport, type YieldCounts } from './report';
export { stagingRoot } from './staging';
