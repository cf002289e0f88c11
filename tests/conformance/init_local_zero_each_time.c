/* a local aggregate's initialiser zeroes what it leaves out, every time it runs */
#include <stdio.h>
struct s { int a, b, c; };
int main(void) {
    int i;
    for (i = 0; i < 3; i++) {
        int arr[4] = {i};
        struct s v = {.b = i};
        printf("%d %d %d %d | %d %d %d\n", arr[0], arr[1], arr[2], arr[3], v.a, v.b, v.c);
        arr[3] = 99;
        v.c = 99;
    }
    return 0;
}
