/** The Python-test rules, split by concern (files of ~400 lines at most); re-exported here for the registry and the cross-file rules. */
export { tests, readByTest, writtenByTest, testStrings, testFunctionsOf, type TestFile } from './pyTestFiles';
export { assertionFreeTest, trivialAssertion, existenceOnlyTest, weakAssertion, swallowedAssertion, skipCountsAsPass } from './pyAssertions';
export { wallClockThreshold, fixedSleepSynchronization } from './pyTiming';
export { unorderedListingComparison, exactDirectoryListing, clockTimezoneDependence, nonInvokingTest, expectedFromAgentWritablePath } from './pyListings';
