/* Sieve of Eratosthenes */
#include <stdio.h>
int main(void) {
    char composite[100];
    int i, j, count = 0;
    for (i = 0; i < 100; i++) composite[i] = 0;
    for (i = 2; i < 100; i++) {
        if (composite[i]) continue;
        count++;
        for (j = i * i; j < 100; j += i) composite[j] = 1;
    }
    printf("%d\n", count);
    return 0;
}
