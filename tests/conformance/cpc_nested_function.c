/* cpc-only: a nested function sees its enclosing function's locals */
#include <stdio.h>
int main(void) {
    int total = 0;
    void add(int v) { total += v; }
    add(3);
    add(4);
    printf("%d\n", total);
    return 0;
}
