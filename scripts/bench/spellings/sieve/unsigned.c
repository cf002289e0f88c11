/* The sieve with unsigned counters (scripts/bench-spellings.sh): the same program as
 * scripts/bench/suite/sieve.c, its loop counters unsigned (each index converted to int).
 */
#define N 4000000
char composite[N];
void main() {
    unsigned int i, j;
    int count;
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
