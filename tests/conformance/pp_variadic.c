/* variadic macros with __VA_ARGS__ */
#include <stdio.h>
#define LOG(fmt, ...) printf("log: " fmt "\n", __VA_ARGS__)
#define FIRST(a, ...) (a)
int main(void) {
    LOG("%d + %d = %d", 2, 3, 5);
    LOG("%s", "done");
    printf("%d\n", FIRST(7, 8, 9));
    return 0;
}
