/* nvtx3/nvToolsExt.h -- NVTX's annotations (ranges, marks, names) for profilers; in the simulator
   they do nothing, so programs that annotate themselves build and run unchanged. */
#ifndef SIMCUDA_NVTOOLSEXT_H
#define SIMCUDA_NVTOOLSEXT_H
#include <stdint.h>

#define NVTX_VERSION 3
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)sizeof(nvtxEventAttributes_t))
#define NVTX_COLOR_ARGB 1
#define NVTX_MESSAGE_TYPE_ASCII 1

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st *nvtxDomainHandle_t;
typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
} nvtxMessageValue_t;
typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union { uint64_t ullValue; int64_t llValue; double dValue; uint32_t uiValue; int32_t iValue; float fValue; } payload;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxEventAttributes_t;

static inline int nvtxRangePushA(const char *message) { (void)message; return 0; }
static inline int nvtxRangePushEx(const nvtxEventAttributes_t *a) { (void)a; return 0; }
static inline int nvtxRangePop(void) { return 0; }
static inline void nvtxMarkA(const char *message) { (void)message; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t *a) { (void)a; }
static inline nvtxRangeId_t nvtxRangeStartA(const char *message) { (void)message; return 1; }
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *a) { (void)a; return 1; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline void nvtxNameOsThreadA(uint32_t id, const char *name) { (void)id; (void)name; }
static inline nvtxDomainHandle_t nvtxDomainCreateA(const char *name) { (void)name; return (nvtxDomainHandle_t)0; }
static inline void nvtxDomainDestroy(nvtxDomainHandle_t d) { (void)d; }
static inline int nvtxDomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; (void)a; return 0; }
static inline int nvtxDomainRangePop(nvtxDomainHandle_t d) { (void)d; return 0; }
#define nvtxRangePush nvtxRangePushA
#define nvtxMark nvtxMarkA
#define nvtxRangeStart nvtxRangeStartA
#endif
