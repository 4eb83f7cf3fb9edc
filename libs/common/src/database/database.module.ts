import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource, DatabaseOptions, ServiceDatabase } from './data-source';

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

/** Provides the service's own DataSource. Schema changes come only from migrations (`synchronize` is off). */
@Module({})
export class DatabaseModule {
  static forService(db: ServiceDatabase, options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        {
          provide: DataSource,
          useFactory: async () => {
            const ds = createDataSource(db, options);
            await ds.initialize();
            return ds;
          },
        },
        DataSourceCloser,
      ],
      exports: [DataSource],
    };
  }
}
