#include "WorkerPool.h"

#include <utility>

namespace neml2::aoti
{
WorkerPool::WorkerPool(std::size_t workers)
{
  _workers.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i)
  {
    auto worker = std::make_unique<Worker>();
    worker->thread = std::thread(&WorkerPool::loop, std::ref(*worker));
    _workers.push_back(std::move(worker));
  }
}

WorkerPool::~WorkerPool()
{
  for (auto & worker : _workers)
  {
    {
      std::lock_guard<std::mutex> lock(worker->mutex);
      worker->stop = true;
    }
    worker->ready.notify_one();
  }
  for (auto & worker : _workers)
    worker->thread.join();
}

void
WorkerPool::submit(std::size_t worker, std::function<void()> task)
{
  auto & w = *_workers.at(worker);
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    w.tasks.push_back(std::move(task));
  }
  w.ready.notify_one();
}

void
WorkerPool::loop(Worker & worker) noexcept
{
  for (;;)
  {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(worker.mutex);
      worker.ready.wait(lock, [&] { return worker.stop || !worker.tasks.empty(); });
      if (worker.tasks.empty())
        return;
      task = std::move(worker.tasks.front());
      worker.tasks.pop_front();
    }
    task();
  }
}
} // namespace neml2::aoti
