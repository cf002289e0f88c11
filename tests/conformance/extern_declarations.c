/* extern declarations and a later definition are one object */
#include <stdio.h>
extern int total;
void add(int v) { total += v; }
int total = 10;
int main(void) {
    extern int total;
    add(5);
    printf("%d\n", total);
    return 0;
}
