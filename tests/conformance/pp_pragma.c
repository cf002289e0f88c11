/* unknown pragmas are ignored; #pragma once is honoured */
#include <stdio.h>
#include "inc/once.h"
#include "inc/once.h"
#pragma omp parallel for
#pragma GCC diagnostic ignored "-Wall"
int main(void) {
    printf("%d\n", once_value);
    return 0;
}
