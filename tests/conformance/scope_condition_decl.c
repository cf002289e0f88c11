/* A selection or iteration statement is a block (C11 6.8.4, 6.8.5): an enum or
   struct defined in its condition ends with it. #pragma push_macro/pop_macro save
   and restore a macro's definition. */
#include <stdio.h>
#define X 1
#pragma push_macro("X")
#undef X
#define X 2
int a = X;
#pragma pop_macro("X")
int b = X;
#pragma push_macro("Y")
#define Y 5
int c = Y;
#pragma pop_macro("Y")
#ifdef Y
int d = 1;
#else
int d = 0;
#endif
int main(void) {
    int A = 7;
    if (sizeof(enum { A = 3 }) > 0)
        printf("%d\n", A);
    printf("%d\n", A);
    int B = 4;
    while (sizeof(enum { B = 9 }) == 0) {
    }
    printf("%d\n", B);
    printf("%d %d %d %d\n", a, b, c, d);
    return 0;
}
