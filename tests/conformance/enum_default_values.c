/* enumerators count from 0 */
#include <stdio.h>
enum color { RED, GREEN, BLUE };
int main(void) {
    enum color c = BLUE;
    printf("%d %d %d %d\n", RED, GREEN, BLUE, c);
    return 0;
}
