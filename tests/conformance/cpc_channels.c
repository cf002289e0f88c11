/* cpc-only: a channel carries values from producers to their reader in order */
#include <stdio.h>
channel int pipe;
void producer(int n) { int i; for (i = 1; i <= n; i++) pipe = i; }
int main(void) {
    int i, s = 0;
    fork producer(5);
    for (i = 0; i < 5; i++) s = s * 10 + pipe;
    join;
    printf("%d\n", s);
    return 0;
}
