// Loads test/fixtures/reference-stats/vectors.json (vendored in the repository) for tests (values from statsmodels, scikit-learn,
// scipy, nltk and R; each test cites the call).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./helpers.js";

export const VECTORS_PATH = join(REPO_ROOT, "test", "fixtures", "reference-stats", "vectors.json");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const vectors: any = JSON.parse(readFileSync(VECTORS_PATH, "utf8"));

/** test/fixtures/reference-stats/second-wave.json: computed by second-wave.R beside it (R 4.2.2), each with its call. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const secondWave: any = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "reference-stats", "second-wave.json"), "utf8"));

/** test/fixtures/reference-stats/two-graders.json: nltk's alpha for two graders with missing labels. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const twoGraders: any = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "reference-stats", "two-graders.json"), "utf8"));
