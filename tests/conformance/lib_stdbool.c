/* stdbool.h: bool, true, false */
#include <stdio.h>
#include <stdbool.h>
bool is_even(int n) { return n % 2 == 0; }
int main(void) {
    bool a = true, b = false;
    printf("%d %d %d %d\n", a, b, is_even(4), is_even(7));
    printf("%d\n", a && !b);
    return 0;
}
