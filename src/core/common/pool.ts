/**
 * Runs `work` over `items` with at most `jobs` in flight and returns the results in input
 * order. The first rejection rejects the whole call after in-flight work settles.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lanes = Math.max(1, Math.min(Math.floor(jobs), items.length));
  async function lane(): Promise<void> {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane));
  if (failure !== undefined) throw failure.error;
  return results;
}
