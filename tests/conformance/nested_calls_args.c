/* arguments evaluated and passed in order; nested calls */
#include <stdio.h>
int add3(int a, int b, int c) { return a * 100 + b * 10 + c; }
int twice(int x) { return 2 * x; }
int main(void) {
    printf("%d\n", add3(twice(1), twice(2), 3));
    printf("%d\n", add3(add3(0, 0, 1), 2, twice(twice(1))));
    return 0;
}
