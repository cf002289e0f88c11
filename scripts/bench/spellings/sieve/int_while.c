/* The sieve on an int array with while loops (scripts/bench-spellings.sh): the same
 * program as scripts/bench/suite/sieve.c, its flags in an int array, its inner loop a
 * while loop, its sums written out. */
#define N 4000000
int composite[N];
void main() {
    int i, j, count;
    count = 0;
    for (i = 2; i < N; i++) {
        if (composite[i] == 0) {
            count = count + 1;
            j = i + i;
            while (j < N) {
                composite[j] = 1;
                j = j + i;
            }
        }
    }
    printf("primes below %d: %d\n", N, count);
}
