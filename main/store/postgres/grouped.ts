/**
 * Groups requests that arrive while one statement is out into the next one: each round trip to the team
 * database costs far more than a row in it, so 200 sends waiting for claims make a handful of statements,
 * not 200. Requests are answered in the order given; a failed statement fails every request it carried.
 */
export class Grouped<In, Out> {
  private waiting: { input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];
  private running = 0;

  /**
   * @param run answers a group, one output per input in the same order
   * @param parallel statements out at once (a share of the pool, so the grouping happens under load)
   * @param most inputs in one statement
   */
  constructor(
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly parallel = 2,
    private readonly most = 200,
  ) {}

  add(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.running >= this.parallel || this.waiting.length === 0) return;
    const group = this.waiting.splice(0, this.most);
    this.running++;
    this.run(group.map((g) => g.input))
      .then(
        (outs) => group.forEach((g, i) => g.resolve(outs[i]!)),
        (error: unknown) => group.forEach((g) => g.reject(error)),
      )
      .finally(() => {
        this.running--;
        this.next();
      });
  }
}
