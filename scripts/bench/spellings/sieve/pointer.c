/* The sieve with a pointer walking the multiples (scripts/bench-spellings.sh): the same
 * program as scripts/bench/suite/sieve.c, its inner loop spelled with a char pointer:
 * for (p = composite + i + i; p < end; p += i) *p = 1; */
#define N 4000000
char composite[N];
void main() {
    int i, count;
    char *p, *end;
    count = 0;
    end = composite + N;
    for (i = 2; i < N; i++) {
        if (!composite[i]) {
            count++;
            for (p = composite + i + i; p < end; p += i)
                *p = 1;
        }
    }
    printf("primes below %d: %d\n", N, count);
}
