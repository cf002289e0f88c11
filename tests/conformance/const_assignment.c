/* assigning to a const object is an error naming it (C11 6.5.16p2); a pointer to const may be reassigned, a const pointer's pointee written */
#include <stdio.h>
struct point { int x, y; };
const int limit = 10;
void f(const int n, char *const p) {
    const char *s = "ok";
    s = "still ok";
    *p = 'a';
    n = 2;
    p = 0;
}
int main(void) {
    const int table[3] = {1, 2, 3};
    const struct point origin = {0, 0};
    limit++;
    table[1] = 5;
    origin.x = 1;
    return 0;
}
