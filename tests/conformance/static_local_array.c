/* a static local array keeps its contents */
#include <stdio.h>
int remember(int v) {
    static int seen[4];
    static int n = 0;
    seen[n % 4] = v;
    n++;
    return seen[0] + seen[1] + seen[2] + seen[3];
}
int main(void) {
    remember(1);
    remember(2);
    printf("%d\n", remember(3));
    return 0;
}
