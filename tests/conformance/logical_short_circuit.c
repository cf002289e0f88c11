/* && and || evaluate their right side only when needed */
#include <stdio.h>
int calls = 0;
int touch(int v) { calls++; return v; }
int main(void) {
    int r1 = touch(0) && touch(1);
    int r2 = touch(1) || touch(0);
    int r3 = touch(1) && touch(2);
    int r4 = touch(0) || touch(0);
    printf("%d %d %d %d calls=%d\n", r1, r2, r3, r4, calls);
    return 0;
}
