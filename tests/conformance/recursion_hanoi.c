/* towers of Hanoi: counting moves recursively */
#include <stdio.h>
int moves = 0;
void hanoi(int n, int from, int to, int via) {
    if (n == 0) return;
    hanoi(n - 1, from, via, to);
    moves++;
    hanoi(n - 1, via, to, from);
}
int main(void) {
    hanoi(10, 1, 3, 2);
    printf("%d\n", moves);
    return 0;
}
