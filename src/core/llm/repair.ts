/**
 * The repair loop shared by generation and "Fix with Claude": ask, check what came back, send the
 * failure back as the answer tool's (failed) result, and ask again — up to a number of rounds. The
 * caller owns what an answer is and how it is checked; this module owns only the rounds, so both
 * features stop, count and report rounds the same way.
 */

export interface RepairHooks<Turn, Failure> {
  readonly rounds: number;
  /** One answer for round `round` (1-based); the caller keeps it in its conversation. */
  ask(round: number): Promise<Turn>;
  /** Checks an answer: `undefined` when it is accepted, else why not. */
  check(turn: Turn, round: number): Promise<Failure | undefined>;
  /** Sends the failure back (only when another round follows). */
  sendBack(turn: Turn, failure: Failure, round: number): void;
  /** Told of every failed round, before anything is sent back. */
  onFailure?(failure: Failure, round: number): void;
}

export interface RepairOutcome<Turn, Failure> {
  /** The accepted answer, if a round produced one. */
  readonly accepted?: Turn;
  /** Rounds used (1..rounds). */
  readonly rounds: number;
  readonly failures: readonly Failure[];
}

export async function repairRounds<Turn, Failure>(h: RepairHooks<Turn, Failure>): Promise<RepairOutcome<Turn, Failure>> {
  const failures: Failure[] = [];
  for (let round = 1; round <= h.rounds; round++) {
    const turn = await h.ask(round);
    const failure = await h.check(turn, round);
    if (failure === undefined) return { accepted: turn, rounds: round, failures };
    failures.push(failure);
    h.onFailure?.(failure, round);
    if (round < h.rounds) h.sendBack(turn, failure, round);
  }
  return { rounds: Math.max(1, h.rounds), failures };
}
