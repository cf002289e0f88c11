/* Sieve of Eratosthenes below 4 000 000 (scripts/bench-suite.sh): a byte array, nested
 * loops with a stride. */
#define N 4000000
char composite[N];
void main() {
    int i, j, count;
    count = 0;
    for (i = 2; i < N; i++) {
        if (!composite[i]) {
            count++;
            for (j = i + i; j < N; j += i)
                composite[j] = 1;
        }
    }
    printf("primes below %d: %d\n", N, count);
}
