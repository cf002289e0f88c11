/* while: Collatz steps */
#include <stdio.h>
int main(void) {
    int n = 27, steps = 0;
    while (n != 1) {
        if (n % 2) n = 3 * n + 1;
        else n /= 2;
        steps++;
    }
    printf("%d\n", steps);
    return 0;
}
