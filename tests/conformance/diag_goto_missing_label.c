/* goto to a label the function does not have */
int main(void) { goto nowhere; return 0; }
