// ThreadSanitizer annotations for Debian's prebuilt Abseil synchronization
// (linked into the test programs of infra/scripts/tsan-check.sh only).
//
// libabsl_synchronization.so is not built with -fsanitize=thread, so TSan
// cannot see absl::Mutex, absl::CondVar or absl::Notification synchronize:
// every access guarded by an absl::Mutex would be reported as a race. This
// file defines the out-of-line members of Mutex and CondVar; each tells
// TSan what the call does (__tsan_mutex_pre/post_lock/unlock, which also
// make TSan ignore the accesses in between, such as a Condition evaluated
// under the lock) and calls Debian's own definition, found with
// dlsym(RTLD_NEXT). Defined in the executable, they take precedence over
// the shared library's for every caller, gRPC's included (its gpr_mu is an
// absl::Mutex). Only the outermost call on a thread annotates: Debian's
// definitions call each other through the same symbols (e.g.
// LockWhenWithTimeout calls LockWhenWithDeadline). Notification is
// written here as absl 20220623 writes it (notification.cc), over these
// Mutex members, because Debian's calls some of them without the PLT.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

#define PS_TSAN_STR2(x) #x
#define PS_TSAN_STR(x) PS_TSAN_STR2(x)

namespace {

// Debian's definition of a member, by its mangled name without the
// "_ZN4absl<N><inline namespace>" prefix.
void* Real(const char* rest) {
  const std::string ns = PS_TSAN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string name =
      "_ZN4absl" + std::to_string(ns.size()) + ns + rest;
  void* fn = dlsym(RTLD_NEXT, name.c_str());
  if (fn == nullptr) {
    std::fprintf(stderr, "absl_sync_annotations: %s not found\n", name.c_str());
    std::abort();
  }
  return fn;
}

template <typename Fn>
Fn Member(const char* rest) {
  return reinterpret_cast<Fn>(Real(rest));
}

constexpr unsigned kRead = __tsan_mutex_read_lock;

thread_local int depth = 0;

// Marks a call into Debian's code; outermost() for the one that annotates.
class Call {
 public:
  Call() : outermost_(depth++ == 0) {}
  ~Call() { --depth; }
  bool outermost() const { return outermost_; }

 private:
  const bool outermost_;
};

void PreLock(const void* mu, unsigned flags) {
  __tsan_mutex_pre_lock(const_cast<void*>(mu), flags);
}
void PostLock(const void* mu, unsigned flags) {
  __tsan_mutex_post_lock(const_cast<void*>(mu), flags, 0);
}
void PreUnlock(const void* mu, unsigned flags) {
  __tsan_mutex_pre_unlock(const_cast<void*>(mu), flags);
}
void PostUnlock(const void* mu, unsigned flags) {
  __tsan_mutex_post_unlock(const_cast<void*>(mu), flags);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

// Lock-like members: the lock is held when they return (LockWhen*: also
// after a timeout).
#define PS_TSAN_LOCK(flags, call)            \
  Call c;                                    \
  if (c.outermost()) PreLock(this, flags);   \
  call;                                      \
  if (c.outermost()) PostLock(this, flags)

#define PS_TSAN_UNLOCK(flags, call)          \
  Call c;                                    \
  if (c.outermost()) PreUnlock(this, flags); \
  call;                                      \
  if (c.outermost()) PostUnlock(this, flags)

// Await*, CondVar::Wait*: `mu` is held before and after and released while
// waiting; the waiting (and the Condition's evaluations) are ignored.
#define PS_TSAN_WAIT(mu, call)               \
  Call c;                                    \
  if (c.outermost()) PreUnlock(mu, 0);       \
  call;                                      \
  if (c.outermost()) {                       \
    PostUnlock(mu, 0);                       \
    PreLock(mu, 0);                          \
    PostLock(mu, 0);                         \
  }

// Debian's, defined here only so that this file needs nothing from
// Debian's library at link time (every program of the build links it, even
// one without Abseil; Notification's destructor destroys a Mutex). Not
// annotated: gRPC destroys mutexes of objects it hands between its threads
// in ways TSan cannot see.
Mutex::~Mutex() {
  static auto real = Member<void (*)(Mutex*)>("5MutexD1Ev");
  real(this);
}

void Mutex::Lock() {
  static auto real = Member<void (*)(Mutex*)>("5Mutex4LockEv");
  PS_TSAN_LOCK(0, real(this));
}

void Mutex::Unlock() {
  static auto real = Member<void (*)(Mutex*)>("5Mutex6UnlockEv");
  PS_TSAN_UNLOCK(0, real(this));
}

void Mutex::ReaderLock() {
  static auto real = Member<void (*)(Mutex*)>("5Mutex10ReaderLockEv");
  PS_TSAN_LOCK(kRead, real(this));
}

void Mutex::ReaderUnlock() {
  static auto real = Member<void (*)(Mutex*)>("5Mutex12ReaderUnlockEv");
  PS_TSAN_UNLOCK(kRead, real(this));
}

bool Mutex::TryLock() {
  static auto real = Member<bool (*)(Mutex*)>("5Mutex7TryLockEv");
  Call c;
  if (!c.outermost()) return real(this);
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(
      this, __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed),
      0);
  return locked;
}

bool Mutex::ReaderTryLock() {
  static auto real = Member<bool (*)(Mutex*)>("5Mutex13ReaderTryLockEv");
  Call c;
  if (!c.outermost()) return real(this);
  __tsan_mutex_pre_lock(this, kRead | __tsan_mutex_try_lock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this,
                         kRead | __tsan_mutex_try_lock |
                             (locked ? 0 : __tsan_mutex_try_lock_failed),
                         0);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static auto real = Member<void (*)(Mutex*, const Condition&)>(
      "5Mutex8LockWhenERKNS0_9ConditionE");
  PS_TSAN_LOCK(0, real(this, cond));
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static auto real = Member<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  bool met;
  PS_TSAN_LOCK(0, met = real(this, cond, timeout));
  return met;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static auto real = Member<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  bool met;
  PS_TSAN_LOCK(0, met = real(this, cond, deadline));
  return met;
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static auto real = Member<void (*)(Mutex*, const Condition&)>(
      "5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  PS_TSAN_LOCK(kRead, real(this, cond));
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond,
                                      Duration timeout) {
  static auto real = Member<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  bool met;
  PS_TSAN_LOCK(kRead, met = real(this, cond, timeout));
  return met;
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  static auto real = Member<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  bool met;
  PS_TSAN_LOCK(kRead, met = real(this, cond, deadline));
  return met;
}

void Mutex::Await(const Condition& cond) {
  static auto real = Member<void (*)(Mutex*, const Condition&)>(
      "5Mutex5AwaitERKNS0_9ConditionE");
  PS_TSAN_WAIT(this, real(this, cond));
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static auto real = Member<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  bool met;
  PS_TSAN_WAIT(this, met = real(this, cond, timeout));
  return met;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static auto real = Member<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  bool met;
  PS_TSAN_WAIT(this, met = real(this, cond, deadline));
  return met;
}

void CondVar::Wait(Mutex* mu) {
  static auto real =
      Member<void (*)(CondVar*, Mutex*)>("7CondVar4WaitEPNS0_5MutexE");
  PS_TSAN_WAIT(mu, real(this, mu));
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static auto real = Member<bool (*)(CondVar*, Mutex*, Duration)>(
      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  bool timed_out;
  PS_TSAN_WAIT(mu, timed_out = real(this, mu, timeout));
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static auto real = Member<bool (*)(CondVar*, Mutex*, Time)>(
      "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  bool timed_out;
  PS_TSAN_WAIT(mu, timed_out = real(this, mu, deadline));
  return timed_out;
}

// Notification, as absl's notification.cc (20220623), debug checks
// included, over the Mutex members above.
void Notification::Notify() {
  MutexLock l(&this->mutex_);
  if (notified_yet_.load(std::memory_order_relaxed)) {
    std::fprintf(stderr,
                 "Notify() method called more than once for Notification "
                 "object %p\n",
                 static_cast<void*>(this));
    std::abort();
  }
  notified_yet_.store(true, std::memory_order_release);
}

Notification::~Notification() {
  // A Notify() still running on another thread ends before the object.
  MutexLock l(&this->mutex_);
}

void Notification::WaitForNotification() const {
  if (!HasBeenNotifiedInternal(&this->notified_yet_)) {
    this->mutex_.LockWhen(
        Condition(&HasBeenNotifiedInternal, &this->notified_yet_));
    this->mutex_.Unlock();
  }
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  bool notified = HasBeenNotifiedInternal(&this->notified_yet_);
  if (!notified) {
    notified = this->mutex_.LockWhenWithTimeout(
        Condition(&HasBeenNotifiedInternal, &this->notified_yet_), timeout);
    this->mutex_.Unlock();
  }
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  bool notified = HasBeenNotifiedInternal(&this->notified_yet_);
  if (!notified) {
    notified = this->mutex_.LockWhenWithDeadline(
        Condition(&HasBeenNotifiedInternal, &this->notified_yet_), deadline);
    this->mutex_.Unlock();
  }
  return notified;
}

ABSL_NAMESPACE_END
}  // namespace absl
